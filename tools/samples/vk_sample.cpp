// Small offscreen Vulkan programs whose frames tools/capture + tools/rdc2trace turn into traces:
// deferred shading as one render pass of two subpasses, as two render passes, 4x MSAA, transfers (with
// vkCmdClearColorImage, vkCmdClearDepthStencilImage and a compute dispatch), and
// a Vulkan 1.3 frame of dynamic rendering with synchronization2 barriers and an indirect draw, and
// material textures of full mip chains (1024x1024 BC7 and R8, 11 levels each) uploaded and sampled.
//
// usage: vk_sample deferred_subpass|deferred_two_pass|msaa_resolve|transfers|dynamic_rendering|textures|points [FRAMES]
// With no swapchain there is no present to end a frame, so when RenderDoc is injected (tools/capture)
// the program brackets frame TBDR_CAPTURE_FRAME itself with RenderDoc's in-application API
// (renderdoc_app.h from librenderdoc-dev: StartFrameCapture / EndFrameCapture).
#include <dlfcn.h>
#include <renderdoc_app.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "color_frag.h"
#include "fill_comp.h"
#include "fullscreen_vert.h"
#include "gbuffer_frag.h"
#include "light_sampled_frag.h"
#include "light_subpass_frag.h"
#include "points_vert.h"
#include "scene_vert.h"

namespace {

constexpr uint32_t kSize = 256;

#define CHECK(call)                                                                   \
  do {                                                                                \
    const VkResult result_ = (call);                                                  \
    if (result_ != VK_SUCCESS) {                                                      \
      std::fprintf(stderr, "vk_sample: %s failed: VkResult %d\n", #call, int(result_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

struct Image {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
};

struct Context {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;

  // `modern`: Vulkan 1.3 with dynamic rendering and synchronization2 (the dynamic_rendering mode).
  void create(bool modern) {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "tbdrsim vk_sample";
    app.apiVersion = modern ? VK_API_VERSION_1_3 : VK_API_VERSION_1_1;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    CHECK(vkCreateInstance(&ici, nullptr, &instance));
    uint32_t count = 0;
    CHECK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
    if (count == 0) {
      std::fprintf(stderr, "vk_sample: no Vulkan device\n");
      std::exit(1);
    }
    std::vector<VkPhysicalDevice> devices(count);
    CHECK(vkEnumeratePhysicalDevices(instance, &count, devices.data()));
    physical = devices[0];
    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
    std::vector<VkQueueFamilyProperties> props(families);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, props.data());
    for (queue_family = 0; queue_family < families; ++queue_family)
      if (props[queue_family].queueFlags & VK_QUEUE_GRAPHICS_BIT) break;
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = queue_family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    VkPhysicalDeviceVulkan13Features features13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    features13.dynamicRendering = VK_TRUE;
    features13.synchronization2 = VK_TRUE;
    VkPhysicalDeviceFeatures available{}, features{};
    vkGetPhysicalDeviceFeatures(physical, &available);
    features.textureCompressionBC = available.textureCompressionBC;  // the textures mode's BC7 image
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    if (modern) dci.pNext = &features13;
    dci.pEnabledFeatures = &features;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    CHECK(vkCreateDevice(physical, &dci, nullptr, &device));
    vkGetDeviceQueue(device, queue_family, 0, &queue);
  }

  uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags wanted) const {
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(physical, &props);
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i)
      if ((bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i)
      if (bits & (1u << i)) return i;
    std::fprintf(stderr, "vk_sample: no memory type\n");
    std::exit(1);
  }

  // Transient attachments ask for lazily allocated memory; lavapipe has none and falls back. The view
  // covers all `levels` mip levels.
  Image image(VkFormat format, VkImageUsageFlags usage, VkSampleCountFlagBits samples, uint32_t size = kSize,
              uint32_t levels = 1) const {
    Image img;
    VkImageCreateInfo ci{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ci.imageType = VK_IMAGE_TYPE_2D;
    ci.format = format;
    ci.extent = {size, size, 1};
    ci.mipLevels = levels;
    ci.arrayLayers = 1;
    ci.samples = samples;
    ci.tiling = VK_IMAGE_TILING_OPTIMAL;
    ci.usage = usage;
    ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    CHECK(vkCreateImage(device, &ci, nullptr, &img.image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device, img.image, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memory_type(req.memoryTypeBits, (usage & VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT)
                                                             ? VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT
                                                             : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    CHECK(vkAllocateMemory(device, &ai, nullptr, &img.memory));
    CHECK(vkBindImageMemory(device, img.image, img.memory, 0));
    VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = img.image;
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = format;
    const bool depth = format == VK_FORMAT_D32_SFLOAT;
    vi.subresourceRange = {VkImageAspectFlags(depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT), 0, levels, 0, 1};
    CHECK(vkCreateImageView(device, &vi, nullptr, &img.view));
    return img;
  }

  // A host-visible buffer holding `bytes` (the MSAA sample's index buffer).
  VkBuffer buffer(const void* data, VkDeviceSize bytes, VkBufferUsageFlags usage) const {
    VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    ci.size = bytes;
    ci.usage = usage;
    VkBuffer b;
    CHECK(vkCreateBuffer(device, &ci, nullptr, &b));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, b, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VkDeviceMemory memory;
    CHECK(vkAllocateMemory(device, &ai, nullptr, &memory));
    CHECK(vkBindBufferMemory(device, b, memory, 0));
    void* mapped = nullptr;
    CHECK(vkMapMemory(device, memory, 0, bytes, 0, &mapped));
    std::memcpy(mapped, data, size_t(bytes));
    vkUnmapMemory(device, memory);
    return b;
  }

  VkShaderModule shader(const uint32_t* code, size_t bytes) const {
    VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    ci.codeSize = bytes;
    ci.pCode = code;
    VkShaderModule m;
    CHECK(vkCreateShaderModule(device, &ci, nullptr, &m));
    return m;
  }
};

VkAttachmentDescription attachment(VkFormat format, VkSampleCountFlagBits samples, VkAttachmentLoadOp load,
                                   VkAttachmentStoreOp store, VkImageLayout final_layout) {
  VkAttachmentDescription a{};
  a.format = format;
  a.samples = samples;
  a.loadOp = load;
  a.storeOp = store;
  a.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  a.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  a.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  a.finalLayout = final_layout;
  return a;
}

VkRenderPass render_pass(const Context& ctx, const std::vector<VkAttachmentDescription>& attachments,
                         const std::vector<VkSubpassDescription>& subpasses,
                         const std::vector<VkSubpassDependency>& dependencies) {
  VkRenderPassCreateInfo ci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  ci.attachmentCount = uint32_t(attachments.size());
  ci.pAttachments = attachments.data();
  ci.subpassCount = uint32_t(subpasses.size());
  ci.pSubpasses = subpasses.data();
  ci.dependencyCount = uint32_t(dependencies.size());
  ci.pDependencies = dependencies.data();
  VkRenderPass rp;
  CHECK(vkCreateRenderPass(ctx.device, &ci, nullptr, &rp));
  return rp;
}

VkFramebuffer framebuffer(const Context& ctx, VkRenderPass rp, const std::vector<VkImageView>& views) {
  VkFramebufferCreateInfo ci{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  ci.renderPass = rp;
  ci.attachmentCount = uint32_t(views.size());
  ci.pAttachments = views.data();
  ci.width = kSize;
  ci.height = kSize;
  ci.layers = 1;
  VkFramebuffer fb;
  CHECK(vkCreateFramebuffer(ctx.device, &ci, nullptr, &fb));
  return fb;
}

struct PipelineDesc {
  VkShaderModule vert, frag;
  VkRenderPass render_pass;
  uint32_t subpass = 0, color_count = 1;
  bool depth = false;
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineLayout layout;
  bool flip_y = false;  // a negative-height viewport (Vulkan 1.1 / VK_KHR_maintenance1): y up
  // Dynamic rendering (render_pass VK_NULL_HANDLE): the attachment formats.
  VkFormat color_format = VK_FORMAT_UNDEFINED, depth_format = VK_FORMAT_UNDEFINED;
  VkPrimitiveTopology topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
};

VkPipeline pipeline(const Context& ctx, const PipelineDesc& d) {
  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                               {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = d.vert;
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = d.frag;
  stages[1].pName = "main";
  VkPipelineVertexInputStateCreateInfo vin{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  ia.topology = d.topology;
  VkViewport viewport{0, 0, float(kSize), float(kSize), 0, 1};
  if (d.flip_y) {
    viewport.y = float(kSize);
    viewport.height = -float(kSize);
  }
  VkRect2D scissor{{0, 0}, {kSize, kSize}};
  VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  vp.viewportCount = 1;
  vp.pViewports = &viewport;
  vp.scissorCount = 1;
  vp.pScissors = &scissor;
  VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  rs.polygonMode = VK_POLYGON_MODE_FILL;
  rs.cullMode = VK_CULL_MODE_NONE;
  rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  rs.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  ms.rasterizationSamples = d.samples;
  VkPipelineDepthStencilStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  ds.depthTestEnable = d.depth;
  ds.depthWriteEnable = d.depth;
  ds.depthCompareOp = VK_COMPARE_OP_LESS;
  std::vector<VkPipelineColorBlendAttachmentState> blends(d.color_count);
  for (auto& b : blends) b.colorWriteMask = 0xF;
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = d.color_count;
  cb.pAttachments = blends.data();
  VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  ci.stageCount = 2;
  ci.pStages = stages;
  ci.pVertexInputState = &vin;
  ci.pInputAssemblyState = &ia;
  ci.pViewportState = &vp;
  ci.pRasterizationState = &rs;
  ci.pMultisampleState = &ms;
  ci.pDepthStencilState = &ds;
  ci.pColorBlendState = &cb;
  ci.layout = d.layout;
  ci.renderPass = d.render_pass;
  ci.subpass = d.subpass;
  VkPipelineRenderingCreateInfo rendering{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
  if (d.render_pass == VK_NULL_HANDLE) {
    rendering.colorAttachmentCount = 1;
    rendering.pColorAttachmentFormats = &d.color_format;
    rendering.depthAttachmentFormat = d.depth_format;
    ci.pNext = &rendering;
  }
  VkPipeline p;
  CHECK(vkCreateGraphicsPipelines(ctx.device, VK_NULL_HANDLE, 1, &ci, nullptr, &p));
  return p;
}

// One descriptor set of three image descriptors of `type` (input attachments or sampled images).
struct Descriptors {
  VkDescriptorSetLayout layout;
  VkPipelineLayout pipeline_layout;
  VkDescriptorSet set;
};

// A descriptor set of `layout` from a pool of its own (`count` descriptors of `type`).
VkDescriptorSet allocate_set(const Context& ctx, VkDescriptorSetLayout layout, VkDescriptorType type, uint32_t count) {
  VkDescriptorPoolSize size{type, count};
  VkDescriptorPoolCreateInfo poci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poci.maxSets = 1;
  poci.poolSizeCount = 1;
  poci.pPoolSizes = &size;
  VkDescriptorPool pool;
  CHECK(vkCreateDescriptorPool(ctx.device, &poci, nullptr, &pool));
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = pool;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &layout;
  VkDescriptorSet set;
  CHECK(vkAllocateDescriptorSets(ctx.device, &ai, &set));
  return set;
}

Descriptors descriptors(const Context& ctx, VkDescriptorType type, const Image* images[3], VkSampler sampler) {
  Descriptors d;
  VkDescriptorSetLayoutBinding bindings[3];
  for (uint32_t i = 0; i < 3; ++i)
    bindings[i] = {i, type, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo lci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  lci.bindingCount = 3;
  lci.pBindings = bindings;
  CHECK(vkCreateDescriptorSetLayout(ctx.device, &lci, nullptr, &d.layout));
  VkPipelineLayoutCreateInfo pci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pci.setLayoutCount = 1;
  pci.pSetLayouts = &d.layout;
  CHECK(vkCreatePipelineLayout(ctx.device, &pci, nullptr, &d.pipeline_layout));
  d.set = allocate_set(ctx, d.layout, type, 3);
  VkDescriptorImageInfo infos[3];
  VkWriteDescriptorSet writes[3];
  for (uint32_t i = 0; i < 3; ++i) {
    const bool depth = i == 2;
    const VkImageLayout layout = type == VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT
                                     ? (depth ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL
                                              : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)
                                     : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    infos[i] = {sampler, images[i]->view, layout};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = d.set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = type;
    writes[i].pImageInfo = &infos[i];
  }
  vkUpdateDescriptorSets(ctx.device, 3, writes, 0, nullptr);
  return d;
}

VkPipelineLayout empty_layout(const Context& ctx) {
  VkPipelineLayoutCreateInfo pci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  VkPipelineLayout l;
  CHECK(vkCreatePipelineLayout(ctx.device, &pci, nullptr, &l));
  return l;
}

void begin_pass(VkCommandBuffer cmd, VkRenderPass rp, VkFramebuffer fb, const std::vector<VkClearValue>& clears) {
  VkRenderPassBeginInfo bi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  bi.renderPass = rp;
  bi.framebuffer = fb;
  bi.renderArea = {{0, 0}, {kSize, kSize}};
  bi.clearValueCount = uint32_t(clears.size());
  bi.pClearValues = clears.data();
  vkCmdBeginRenderPass(cmd, &bi, VK_SUBPASS_CONTENTS_INLINE);
}

VkClearValue clear_color(float r, float g, float b) {
  VkClearValue v{};
  v.color = {{r, g, b, 1.0f}};
  return v;
}

VkClearValue clear_depth() {
  VkClearValue v{};
  v.depthStencil = {1.0f, 0};
  return v;
}

constexpr VkFormat kColor = VK_FORMAT_R8G8B8A8_UNORM, kDepth = VK_FORMAT_D32_SFLOAT;
constexpr VkImageUsageFlags kGbufferTransient = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT |
                                                VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT;

// One subpass writing the 1-sample RGBA8 output: CLEAR, STORE, left in TRANSFER_SRC.
VkRenderPass output_pass(const Context& ctx) {
  const VkAttachmentReference out_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  std::vector<VkSubpassDescription> subpass(1);
  subpass[0].pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass[0].colorAttachmentCount = 1;
  subpass[0].pColorAttachments = &out_ref;
  return render_pass(ctx,
                     {attachment(kColor, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
                                 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)},
                     subpass, {});
}

// External -> subpass 0 and 0 -> 1 (by region: the lighting reads the same pixel).
std::vector<VkSubpassDependency> subpass_dependencies() {
  VkSubpassDependency external{};
  external.srcSubpass = VK_SUBPASS_EXTERNAL;
  external.dstSubpass = 0;
  external.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  external.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT;
  external.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  VkSubpassDependency gbuffer{};
  gbuffer.srcSubpass = 0;
  gbuffer.dstSubpass = 1;
  gbuffer.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  gbuffer.dstStageMask = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;
  gbuffer.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  gbuffer.dstAccessMask = VK_ACCESS_INPUT_ATTACHMENT_READ_BIT;
  gbuffer.dependencyFlags = VK_DEPENDENCY_BY_REGION_BIT;
  return {external, gbuffer};
}

// What every mode's recording uses: the device, the two vertex shaders, the output image (the
// frame's final color, read back by the capture) and the command buffers (record's).
struct FrameRecording {
  const Context& ctx;
  VkShaderModule scene, fullscreen;
  const Image& output;
  VkCommandBuffer cmd, setup;
};

// The `deferred_subpass` mode's frame.
// G-buffer transient and DONT_CARE: on a TBDR that merges the subpasses it never leaves the tile.
void record_deferred_subpass(const FrameRecording& f) {
  const Context& ctx = f.ctx;
  const VkShaderModule scene = f.scene;
  const VkShaderModule fullscreen = f.fullscreen;
  const Image& output = f.output;
  const VkCommandBuffer cmd = f.cmd;
  const Image albedo = ctx.image(kColor, kGbufferTransient, VK_SAMPLE_COUNT_1_BIT);
  const Image normal = ctx.image(kColor, kGbufferTransient, VK_SAMPLE_COUNT_1_BIT);
  const Image depth = ctx.image(kDepth, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                                            VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT,
                                VK_SAMPLE_COUNT_1_BIT);
  const std::vector<VkAttachmentDescription> atts = {
      attachment(kColor, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
                 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL),
      attachment(kColor, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_DONT_CARE,
                 VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL),
      attachment(kColor, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_DONT_CARE,
                 VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL),
      attachment(kDepth, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_DONT_CARE,
                 VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL)};
  const VkAttachmentReference gbuffer_color[2] = {{1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
                                                  {2, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL}};
  const VkAttachmentReference depth_ref{3, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  const VkAttachmentReference inputs[3] = {{1, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
                                           {2, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
                                           {3, VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL}};
  const VkAttachmentReference out_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  std::vector<VkSubpassDescription> subpasses(2);
  subpasses[0].pipelineBindPoint = subpasses[1].pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpasses[0].colorAttachmentCount = 2;
  subpasses[0].pColorAttachments = gbuffer_color;
  subpasses[0].pDepthStencilAttachment = &depth_ref;
  subpasses[1].inputAttachmentCount = 3;
  subpasses[1].pInputAttachments = inputs;
  subpasses[1].colorAttachmentCount = 1;
  subpasses[1].pColorAttachments = &out_ref;
  const VkRenderPass rp = render_pass(ctx, atts, subpasses, subpass_dependencies());
  const VkFramebuffer fb = framebuffer(ctx, rp, {output.view, albedo.view, normal.view, depth.view});
  const Image* gbuffer[3] = {&albedo, &normal, &depth};
  const Descriptors light = descriptors(ctx, VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, gbuffer, VK_NULL_HANDLE);
  const VkPipeline geometry = pipeline(ctx, {scene, ctx.shader(gbuffer_frag, sizeof(gbuffer_frag)), rp, 0, 2,
                                             true, VK_SAMPLE_COUNT_1_BIT, empty_layout(ctx)});
  const VkPipeline lighting = pipeline(ctx, {fullscreen, ctx.shader(light_subpass_frag, sizeof(light_subpass_frag)),
                                             rp, 1, 1, false, VK_SAMPLE_COUNT_1_BIT, light.pipeline_layout});
  begin_pass(cmd, rp, fb, {clear_color(0.05f, 0.05f, 0.08f), clear_color(0, 0, 0), clear_color(0.5f, 0.5f, 1), clear_depth()});
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, geometry);
  vkCmdDraw(cmd, 9, 1, 0, 0);
  vkCmdNextSubpass(cmd, VK_SUBPASS_CONTENTS_INLINE);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, lighting);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, light.pipeline_layout, 0, 1, &light.set, 0, nullptr);
  vkCmdDraw(cmd, 3, 1, 0, 0);
  vkCmdEndRenderPass(cmd);
}

// The `deferred_two_pass` mode's frame.
// The same frame as two render passes: the G-buffer is stored, then sampled (a DRAM round trip).
void record_deferred_two_pass(const FrameRecording& f) {
  const Context& ctx = f.ctx;
  const VkShaderModule scene = f.scene;
  const VkShaderModule fullscreen = f.fullscreen;
  const Image& output = f.output;
  const VkCommandBuffer cmd = f.cmd;
  const VkImageUsageFlags usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
  const Image albedo = ctx.image(kColor, usage, VK_SAMPLE_COUNT_1_BIT);
  const Image normal = ctx.image(kColor, usage, VK_SAMPLE_COUNT_1_BIT);
  const Image depth = ctx.image(kDepth, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                                VK_SAMPLE_COUNT_1_BIT);
  const VkAttachmentReference gbuffer_color[2] = {{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
                                                  {1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL}};
  const VkAttachmentReference depth_ref{2, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  std::vector<VkSubpassDescription> g(1);
  g[0].pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  g[0].colorAttachmentCount = 2;
  g[0].pColorAttachments = gbuffer_color;
  g[0].pDepthStencilAttachment = &depth_ref;
  VkSubpassDependency to_sampled{};
  to_sampled.srcSubpass = 0;
  to_sampled.dstSubpass = VK_SUBPASS_EXTERNAL;
  to_sampled.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  to_sampled.dstStageMask = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;
  to_sampled.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  to_sampled.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
  const VkRenderPass gpass = render_pass(
      ctx,
      {attachment(kColor, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL),
       attachment(kColor, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL),
       attachment(kDepth, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)},
      g, {to_sampled});
  const VkRenderPass lpass = output_pass(ctx);
  const VkFramebuffer gfb = framebuffer(ctx, gpass, {albedo.view, normal.view, depth.view});
  const VkFramebuffer lfb = framebuffer(ctx, lpass, {output.view});
  VkSamplerCreateInfo sci{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  sci.magFilter = sci.minFilter = VK_FILTER_NEAREST;
  sci.addressModeU = sci.addressModeV = sci.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  VkSampler sampler;
  CHECK(vkCreateSampler(ctx.device, &sci, nullptr, &sampler));
  const Image* gbuffer[3] = {&albedo, &normal, &depth};
  const Descriptors light = descriptors(ctx, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, gbuffer, sampler);
  const VkPipeline geometry = pipeline(ctx, {scene, ctx.shader(gbuffer_frag, sizeof(gbuffer_frag)), gpass, 0, 2,
                                             true, VK_SAMPLE_COUNT_1_BIT, empty_layout(ctx)});
  const VkPipeline lighting = pipeline(ctx, {fullscreen, ctx.shader(light_sampled_frag, sizeof(light_sampled_frag)),
                                             lpass, 0, 1, false, VK_SAMPLE_COUNT_1_BIT, light.pipeline_layout});
  begin_pass(cmd, gpass, gfb, {clear_color(0, 0, 0), clear_color(0.5f, 0.5f, 1), clear_depth()});
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, geometry);
  vkCmdDraw(cmd, 9, 1, 0, 0);
  vkCmdEndRenderPass(cmd);
  begin_pass(cmd, lpass, lfb, {clear_color(0.05f, 0.05f, 0.08f)});
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, lighting);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, light.pipeline_layout, 0, 1, &light.set, 0, nullptr);
  vkCmdDraw(cmd, 3, 1, 0, 0);
  vkCmdEndRenderPass(cmd);
}

// The `transfers` mode's frame.
// The commands around render passes a converter has to carry: a mid-pass vkCmdClearAttachments,
// an image barrier, a blit to a half-size image and a copy.
void record_transfers(const FrameRecording& f) {
  const Context& ctx = f.ctx;
  const VkShaderModule scene = f.scene;
  const Image& output = f.output;
  const VkCommandBuffer cmd = f.cmd;
  const Image half = ctx.image(kColor, VK_IMAGE_USAGE_TRANSFER_DST_BIT, VK_SAMPLE_COUNT_1_BIT, kSize / 2);
  const Image copy = ctx.image(kColor, VK_IMAGE_USAGE_TRANSFER_DST_BIT, VK_SAMPLE_COUNT_1_BIT);
  const VkRenderPass rp = output_pass(ctx);
  const VkFramebuffer fb = framebuffer(ctx, rp, {output.view});
  const VkPipeline forward = pipeline(ctx, {scene, ctx.shader(color_frag, sizeof(color_frag)), rp, 0, 1, false,
                                            VK_SAMPLE_COUNT_1_BIT, empty_layout(ctx)});
  begin_pass(cmd, rp, fb, {clear_color(0.05f, 0.05f, 0.08f)});
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, forward);
  vkCmdDraw(cmd, 9, 1, 0, 0);
  VkClearAttachment clear{VK_IMAGE_ASPECT_COLOR_BIT, 0, clear_color(1, 0, 0)};
  VkClearRect rect{{{16, 16}, {64, 64}}, 0, 1};
  vkCmdClearAttachments(cmd, 1, &clear, 1, &rect);
  vkCmdEndRenderPass(cmd);
  VkImageMemoryBarrier barriers[2];
  for (int i = 0; i < 2; ++i) {
    barriers[i] = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    barriers[i].dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barriers[i].oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    barriers[i].newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    barriers[i].srcQueueFamilyIndex = barriers[i].dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barriers[i].image = i == 0 ? half.image : copy.image;
    barriers[i].subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  }
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                       nullptr, 2, barriers);
  VkImageBlit blit{};
  blit.srcSubresource = blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  blit.srcOffsets[1] = {int32_t(kSize), int32_t(kSize), 1};
  blit.dstOffsets[1] = {int32_t(kSize / 2), int32_t(kSize / 2), 1};
  vkCmdBlitImage(cmd, output.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, half.image,
                 VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_LINEAR);
  VkImageCopy region{};
  region.srcSubresource = region.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.extent = {kSize, kSize, 1};
  vkCmdCopyImage(cmd, output.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, copy.image,
                 VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
  // vkCmdClearColorImage / vkCmdClearDepthStencilImage outside a render pass, then a compute
  // dispatch that writes the cleared color image as a storage image.
  const Image target = ctx.image(kColor, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                 VK_SAMPLE_COUNT_1_BIT, kSize / 2);
  const Image depth = ctx.image(kDepth, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                VK_SAMPLE_COUNT_1_BIT);
  VkImageMemoryBarrier to_dst[2];
  for (int i = 0; i < 2; ++i) {
    to_dst[i] = barriers[i];
    to_dst[i].image = i == 0 ? target.image : depth.image;
    to_dst[i].subresourceRange.aspectMask = i == 0 ? VK_IMAGE_ASPECT_COLOR_BIT : VK_IMAGE_ASPECT_DEPTH_BIT;
  }
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                       nullptr, 2, to_dst);
  const VkClearColorValue green{{0.0f, 1.0f, 0.0f, 1.0f}};
  const VkImageSubresourceRange color_range{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdClearColorImage(cmd, target.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &green, 1, &color_range);
  const VkClearDepthStencilValue half_depth{0.5f, 0};
  const VkImageSubresourceRange depth_range{VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1};
  vkCmdClearDepthStencilImage(cmd, depth.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &half_depth, 1, &depth_range);
  VkImageMemoryBarrier to_general = to_dst[0];
  to_general.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  to_general.dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  to_general.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  to_general.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr, 0,
                       nullptr, 1, &to_general);
  VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo lci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  lci.bindingCount = 1;
  lci.pBindings = &binding;
  VkDescriptorSetLayout set_layout;
  CHECK(vkCreateDescriptorSetLayout(ctx.device, &lci, nullptr, &set_layout));
  VkPipelineLayoutCreateInfo pci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pci.setLayoutCount = 1;
  pci.pSetLayouts = &set_layout;
  VkPipelineLayout compute_layout;
  CHECK(vkCreatePipelineLayout(ctx.device, &pci, nullptr, &compute_layout));
  const VkDescriptorSet set = allocate_set(ctx, set_layout, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1);
  const VkDescriptorImageInfo storage{VK_NULL_HANDLE, target.view, VK_IMAGE_LAYOUT_GENERAL};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = set;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
  write.pImageInfo = &storage;
  vkUpdateDescriptorSets(ctx.device, 1, &write, 0, nullptr);
  VkComputePipelineCreateInfo cci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cci.stage.module = ctx.shader(fill_comp, sizeof(fill_comp));
  cci.stage.pName = "main";
  cci.layout = compute_layout;
  VkPipeline fill;
  CHECK(vkCreateComputePipelines(ctx.device, VK_NULL_HANDLE, 1, &cci, nullptr, &fill));
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, fill);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, compute_layout, 0, 1, &set, 0, nullptr);
  vkCmdDispatch(cmd, kSize / 2 / 8, kSize / 2 / 8, 1);
}

// The `textures` mode's frame.
// Two material textures of full mip chains, as a game streams them: 1024x1024 BC7 (16 B per 4x4
// block) and R8, 11 levels each, every level copied from a buffer before the first frame, then
// sampled at level 0 by each frame's full-screen draw (binding 2 samples the R8 one again).
void record_textures(const FrameRecording& f) {
  const Context& ctx = f.ctx;
  const VkShaderModule fullscreen = f.fullscreen;
  const Image& output = f.output;
  const VkCommandBuffer cmd = f.cmd;
  const VkCommandBuffer setup = f.setup;
  constexpr uint32_t kTexSize = 1024, kLevels = 11;
  const VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
  const Image bc7 = ctx.image(VK_FORMAT_BC7_UNORM_BLOCK, usage, VK_SAMPLE_COUNT_1_BIT, kTexSize, kLevels);
  const Image r8 = ctx.image(VK_FORMAT_R8_UNORM, usage, VK_SAMPLE_COUNT_1_BIT, kTexSize, kLevels);
  for (const Image* tex : {&bc7, &r8}) {
    const bool blocks = tex == &bc7;
    std::vector<uint8_t> bytes;
    std::vector<VkBufferImageCopy> regions;
    for (uint32_t level = 0; level < kLevels; ++level) {
      const uint32_t side = std::max(1u, kTexSize >> level);
      const size_t size = blocks ? size_t((side + 3) / 4) * ((side + 3) / 4) * 16 : size_t(side) * side;
      VkBufferImageCopy r{};
      r.bufferOffset = bytes.size();
      r.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1};
      r.imageExtent = {side, side, 1};
      regions.push_back(r);
      for (size_t i = 0; i < size; ++i)
        // BC7 mode 6 blocks (first byte 0x40: one subset, RGBA endpoints, 4-bit indices) of varying
        // endpoints; R8 a gradient.
        bytes.push_back(uint8_t(blocks && i % 16 == 0 ? 0x40 : (i * 37 + level * 11) & 0xFF));
    }
    const VkBuffer staging = ctx.buffer(bytes.data(), bytes.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    const auto transition = [&](VkImageLayout from, VkImageLayout to, VkAccessFlags src, VkAccessFlags dst,
                                VkPipelineStageFlags src_stage, VkPipelineStageFlags dst_stage) {
      VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, nullptr, src, dst, from, to,
                             VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED, tex->image,
                             {VK_IMAGE_ASPECT_COLOR_BIT, 0, kLevels, 0, 1}};
      vkCmdPipelineBarrier(setup, src_stage, dst_stage, 0, 0, nullptr, 0, nullptr, 1, &b);
    };
    transition(VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
               VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
    vkCmdCopyBufferToImage(setup, staging, tex->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, uint32_t(regions.size()),
                           regions.data());
    transition(VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
               VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
               VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT);
  }
  const VkRenderPass rp = output_pass(ctx);
  const VkFramebuffer fb = framebuffer(ctx, rp, {output.view});
  VkSamplerCreateInfo sci{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  sci.magFilter = sci.minFilter = VK_FILTER_NEAREST;
  sci.addressModeU = sci.addressModeV = sci.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  sci.maxLod = float(kLevels);
  VkSampler sampler;
  CHECK(vkCreateSampler(ctx.device, &sci, nullptr, &sampler));
  const Image* textures[3] = {&bc7, &r8, &r8};
  const Descriptors set = descriptors(ctx, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, textures, sampler);
  const VkPipeline draw = pipeline(ctx, {fullscreen, ctx.shader(light_sampled_frag, sizeof(light_sampled_frag)), rp,
                                         0, 1, false, VK_SAMPLE_COUNT_1_BIT, set.pipeline_layout});
  begin_pass(cmd, rp, fb, {clear_color(0.05f, 0.05f, 0.08f)});
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, draw);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, set.pipeline_layout, 0, 1, &set.set, 0, nullptr);
  vkCmdDraw(cmd, 3, 1, 0, 0);
  vkCmdEndRenderPass(cmd);
}

// The `msaa_resolve` mode's frame.
// 4x MSAA color and depth, transient and DONT_CARE, resolved inline into the 1-sample output.
void record_msaa_resolve(const FrameRecording& f) {
  const Context& ctx = f.ctx;
  const VkShaderModule scene = f.scene;
  const Image& output = f.output;
  const VkCommandBuffer cmd = f.cmd;
  const Image color = ctx.image(kColor, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT,
                                VK_SAMPLE_COUNT_4_BIT);
  const Image depth = ctx.image(kDepth, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT,
                                VK_SAMPLE_COUNT_4_BIT);
  const VkAttachmentReference color_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  const VkAttachmentReference depth_ref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  const VkAttachmentReference resolve_ref{2, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  std::vector<VkSubpassDescription> s(1);
  s[0].pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  s[0].colorAttachmentCount = 1;
  s[0].pColorAttachments = &color_ref;
  s[0].pResolveAttachments = &resolve_ref;
  s[0].pDepthStencilAttachment = &depth_ref;
  const VkRenderPass rp = render_pass(
      ctx,
      {attachment(kColor, VK_SAMPLE_COUNT_4_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_DONT_CARE,
                  VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL),
       attachment(kDepth, VK_SAMPLE_COUNT_4_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_DONT_CARE,
                  VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
       attachment(kColor, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_STORE,
                  VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)},
      s, {});
  const VkFramebuffer fb = framebuffer(ctx, rp, {color.view, depth.view, output.view});
  // Drawn indexed (16-bit, triangles in reverse order) through a y-up viewport, so a capture
  // exercises index buffers and the negative-height viewport too.
  const VkPipeline forward = pipeline(ctx, {scene, ctx.shader(color_frag, sizeof(color_frag)), rp, 0, 1, true,
                                            VK_SAMPLE_COUNT_4_BIT, empty_layout(ctx), true});
  const uint16_t indices[9] = {6, 7, 8, 3, 4, 5, 0, 1, 2};
  const VkBuffer index_buffer = ctx.buffer(indices, sizeof(indices), VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
  begin_pass(cmd, rp, fb, {clear_color(0.05f, 0.05f, 0.08f), clear_depth(), clear_color(0, 0, 0)});
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, forward);
  vkCmdBindIndexBuffer(cmd, index_buffer, 0, VK_INDEX_TYPE_UINT16);
  vkCmdDrawIndexed(cmd, 9, 1, 0, 0, 0);
  vkCmdEndRenderPass(cmd);
}

// The `points` mode's frame: nine points whose size the vertex shader writes (Vulkan's PointSize).
void record_points(const FrameRecording& f) {
  const Context& ctx = f.ctx;
  const VkAttachmentReference color_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  std::vector<VkSubpassDescription> s(1);
  s[0].pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  s[0].colorAttachmentCount = 1;
  s[0].pColorAttachments = &color_ref;
  const VkRenderPass rp = render_pass(ctx,
                                      {attachment(kColor, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
                                                  VK_ATTACHMENT_STORE_OP_STORE, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)},
                                      s, {});
  const VkFramebuffer fb = framebuffer(ctx, rp, {f.output.view});
  PipelineDesc d{ctx.shader(points_vert, sizeof(points_vert)), ctx.shader(color_frag, sizeof(color_frag)), rp, 0, 1,
                 false, VK_SAMPLE_COUNT_1_BIT, empty_layout(ctx)};
  d.topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
  const VkPipeline points = pipeline(ctx, d);
  begin_pass(f.cmd, rp, fb, {clear_color(0.05f, 0.05f, 0.08f)});
  vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, points);
  vkCmdDraw(f.cmd, 9, 1, 0, 0);
  vkCmdEndRenderPass(f.cmd);
}

// The `dynamic_rendering` mode's frame.
// Vulkan 1.3: synchronization2 barriers around a vkCmdBeginRendering pass (color CLEAR/STORE,
// depth CLEAR/DONT_CARE, transient), no render pass or framebuffer objects.
void record_dynamic_rendering(const FrameRecording& f) {
  const Context& ctx = f.ctx;
  const VkShaderModule scene = f.scene;
  const Image& output = f.output;
  const VkCommandBuffer cmd = f.cmd;
  const Image depth = ctx.image(kDepth, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT,
                                VK_SAMPLE_COUNT_1_BIT);
  auto barrier = [&](VkImage image, VkImageAspectFlags aspect, VkImageLayout from, VkImageLayout to,
                     VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                     VkAccessFlags2 dst_access) {
    const VkImageMemoryBarrier2 b{.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2, .srcStageMask = src_stage,
                                  .srcAccessMask = src_access, .dstStageMask = dst_stage, .dstAccessMask = dst_access,
                                  .oldLayout = from, .newLayout = to, .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                  .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
                                  .subresourceRange = {aspect, 0, 1, 0, 1}};
    VkDependencyInfo di{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    di.imageMemoryBarrierCount = 1;
    di.pImageMemoryBarriers = &b;
    vkCmdPipelineBarrier2(cmd, &di);
  };
  barrier(output.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
          VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
          VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
  barrier(depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
          VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT,
          VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
  VkRenderingAttachmentInfo color_att{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
  color_att.imageView = output.view;
  color_att.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  color_att.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  color_att.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  color_att.clearValue = clear_color(0.05f, 0.05f, 0.08f);
  VkRenderingAttachmentInfo depth_att{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
  depth_att.imageView = depth.view;
  depth_att.imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
  depth_att.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  depth_att.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  depth_att.clearValue = clear_depth();
  VkRenderingInfo ri{VK_STRUCTURE_TYPE_RENDERING_INFO};
  ri.renderArea = {{0, 0}, {kSize, kSize}};
  ri.layerCount = 1;
  ri.colorAttachmentCount = 1;
  ri.pColorAttachments = &color_att;
  ri.pDepthAttachment = &depth_att;
  PipelineDesc d{scene, ctx.shader(color_frag, sizeof(color_frag)), VK_NULL_HANDLE, 0, 1, true,
                 VK_SAMPLE_COUNT_1_BIT, empty_layout(ctx), false};
  d.color_format = kColor;
  d.depth_format = kDepth;
  const VkPipeline forward = pipeline(ctx, d);
  // The triangles as two indirect draws (3 and 6 vertices) read from a buffer.
  const VkDrawIndirectCommand draws[2] = {{3, 1, 0, 0}, {6, 1, 3, 0}};
  const VkBuffer indirect = ctx.buffer(draws, sizeof(draws), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);
  vkCmdBeginRendering(cmd, &ri);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, forward);
  vkCmdDrawIndirect(cmd, indirect, 0, 2, sizeof(VkDrawIndirectCommand));
  vkCmdEndRendering(cmd);
  barrier(output.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
          VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
          VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
}

// Records the frame's commands for `mode` into `cmd`, and into `setup` what is submitted once before
// the first frame (the textures mode's uploads: a game's textures are in memory before the frame).
void record(const Context& ctx, const std::string& mode, VkCommandBuffer cmd, VkCommandBuffer setup) {
  const VkShaderModule scene = ctx.shader(scene_vert, sizeof(scene_vert));
  const VkShaderModule fullscreen = ctx.shader(fullscreen_vert, sizeof(fullscreen_vert));
  const Image output = ctx.image(kColor, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                 VK_SAMPLE_COUNT_1_BIT);
  VkCommandBufferBeginInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  CHECK(vkBeginCommandBuffer(cmd, &cbi));
  if (setup) CHECK(vkBeginCommandBuffer(setup, &cbi));
  const FrameRecording f{ctx, scene, fullscreen, output, cmd, setup};
  if (mode == "deferred_subpass") record_deferred_subpass(f);
  else if (mode == "deferred_two_pass") record_deferred_two_pass(f);
  else if (mode == "transfers") record_transfers(f);
  else if (mode == "textures") record_textures(f);
  else if (mode == "msaa_resolve") record_msaa_resolve(f);
  else if (mode == "dynamic_rendering") record_dynamic_rendering(f);
  else if (mode == "points") record_points(f);
  CHECK(vkEndCommandBuffer(cmd));
  if (setup) CHECK(vkEndCommandBuffer(setup));
}

RENDERDOC_API_1_1_2* renderdoc_api() {
  // Only when RenderDoc injected itself (tools/capture): RTLD_NOLOAD never loads it.
  void* lib = dlopen("librenderdoc.so", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return nullptr;
  auto get_api = reinterpret_cast<pRENDERDOC_GetAPI>(dlsym(lib, "RENDERDOC_GetAPI"));
  RENDERDOC_API_1_1_2* api = nullptr;
  if (!get_api || get_api(eRENDERDOC_API_Version_1_1_2, reinterpret_cast<void**>(&api)) != 1) return nullptr;
  return api;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "deferred_subpass" && mode != "deferred_two_pass" && mode != "msaa_resolve" && mode != "transfers" &&
      mode != "dynamic_rendering" && mode != "textures" && mode != "points") {
    std::fprintf(stderr,
                 "usage: vk_sample deferred_subpass|deferred_two_pass|msaa_resolve|transfers|dynamic_rendering|textures|"
                 "points [FRAMES]\n");
    return 2;
  }
  const int frames = argc > 2 ? std::atoi(argv[2]) : 8;  // past tools/capture's default frame 5
  const char* capture_env = std::getenv("TBDR_CAPTURE_FRAME");
  const int capture_frame = capture_env ? std::atoi(capture_env) : -1;
  RENDERDOC_API_1_1_2* rdoc = renderdoc_api();

  Context ctx;
  ctx.create(mode == "dynamic_rendering");
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.queueFamilyIndex = ctx.queue_family;
  VkCommandPool pool;
  CHECK(vkCreateCommandPool(ctx.device, &pci, nullptr, &pool));
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  // Only the textures mode has set-up work: the other modes' captures keep their resource ids.
  const bool has_setup = mode == "textures";
  ai.commandBufferCount = has_setup ? 2 : 1;
  VkCommandBuffer buffers[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
  CHECK(vkAllocateCommandBuffers(ctx.device, &ai, buffers));
  const VkCommandBuffer cmd = buffers[0], setup = buffers[1];
  record(ctx, mode, cmd, setup);
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  CHECK(vkCreateFence(ctx.device, &fci, nullptr, &fence));
  const auto submit = [&](const VkCommandBuffer* buffer) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = buffer;
    CHECK(vkQueueSubmit(ctx.queue, 1, &si, fence));
    CHECK(vkWaitForFences(ctx.device, 1, &fence, VK_TRUE, UINT64_MAX));
    CHECK(vkResetFences(ctx.device, 1, &fence));
  };
  if (has_setup) submit(&setup);
  for (int frame = 0; frame < frames; ++frame) {
    const bool capture = rdoc && frame == capture_frame;
    if (capture) rdoc->StartFrameCapture(RENDERDOC_DEVICEPOINTER_FROM_VKINSTANCE(ctx.instance), nullptr);
    submit(&cmd);
    if (capture && rdoc->EndFrameCapture(RENDERDOC_DEVICEPOINTER_FROM_VKINSTANCE(ctx.instance), nullptr) != 1) {
      std::fprintf(stderr, "vk_sample: RenderDoc could not capture frame %d\n", frame);
      return 1;
    }
  }
  vkDeviceWaitIdle(ctx.device);
  std::printf("vk_sample %s: %d frames\n", mode.c_str(), frames);
  return 0;
}
